import torch
from shapes import draw
from spotter import predict_saved, nudge, thumbnail

img, y = draw(500, seed=1)
pred = predict_saved(img)
print(f"accuracy: {(pred == y).float().mean().item():.1%}")
print(f"nudged: {(predict_saved(nudge(img)) == y).float().mean().item():.1%}")
print(thumbnail(img.float()).shape)
