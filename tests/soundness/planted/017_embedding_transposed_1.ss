## Planted bug: embedding transposed 1.

dim V = 50
dim E = 8

fn embed(ids: [b n] Index[V], table: [E V]) -> [b n E] = embedding(ids, table)   #~ E0701
