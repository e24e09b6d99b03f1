## Planted bug: gather wrong table.

dim V = 12
dim W = 10

fn look(table: [W D], ids: [n] Index[V]) -> [n D] = table[ids]   #~ E0701
