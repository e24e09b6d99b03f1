import python torch

## The likeliest class of each image, with the weights `train.py` saved.
fn predict_saved(img: Images u8) -> [b] Index[C]:
    w = torch.load("weights.pt")
    return predict(img, w[0] as [P*P D], w[1] as [L N Dt], w[2] as [L Dt N],
                   w[3] as [L D Dc], w[4] as [L Dc D], w[5] as [D C])
