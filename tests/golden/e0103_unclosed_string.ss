## A string that runs to the end of its line.

import python torch

fn load():
    w = torch.load("weights.pt)   #~ E0103
