## A name defined twice: functions, dims, parameters, fields and imports.

dim D = 8
dim D = 16   #~ E0202

fn double(x: [n]) -> [n] = x * 2.0

fn double(x: [n]) -> [n] = x + x   #~ E0202

fn pair(x: [n], x: [n]) -> [n] = x   #~ E0202

model M:
    param w: [D]
    param w: [D D]   #~ E0202

import python torch
import python torch   #~ E0202
