import torch
from shapes import draw
from spotter import loss, predict, per_class_accuracy, confusion

img, y = draw(2000)                     # training images, as bytes, and labels
test_img, test_y = draw(500, seed=1)    # images the model never trains on

g = torch.Generator().manual_seed(0)
def weights(*shape):
    return (torch.randn(*shape, generator=g) / shape[-2] ** 0.5).requires_grad_()

# In the order the spotter's functions take them: w_e, tw1, tw2, cw1, cw2, w_h.
w = [weights(16, 32), weights(2, 16, 64), weights(2, 64, 16),
     weights(2, 32, 64), weights(2, 64, 32), weights(32, 4)]
opt = torch.optim.Adam(w, lr=3e-3)

for step in range(201):
    batch = torch.randint(0, 2000, (64,), generator=g)
    l = loss(img[batch], y[batch], *w)
    opt.zero_grad()
    l.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step}: loss {l.item():.3f}")

with torch.no_grad():
    pred = predict(test_img, *w)
print(f"test accuracy: {(pred == test_y).float().mean().item():.1%}")
print(per_class_accuracy(pred, test_y))
print(confusion(pred, test_y))
torch.save(w, "weights.pt")
