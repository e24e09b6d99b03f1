## A param's type is a static tensor type: dims and literals only.

dim D = 32

model Embed:
    param table: [V 32]   #~ E0902
    param pos: [...]   #~ E0902
    param scale: float   #~ E0902
    param w: [D D]
