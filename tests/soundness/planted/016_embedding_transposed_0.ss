## Planted bug: embedding transposed 0.

dim V = 100
dim E = 16

fn embed(ids: [b n] Index[V], table: [E V]) -> [b n E] = embedding(ids, table)   #~ E0701
