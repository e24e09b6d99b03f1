## Layers shared by the golden programs that import a module (`import layers`,
## `from layers import …`).

## Width of each token.
dim D = 8
dim F = 4*D

## A batch of token sequences.
dim Tokens = [b n D]

## A two-layer perceptron.
model Mlp:
    param w1: [D F] = normal(std=0.02)
    param w2: [F D]

fn norm(x: [b n D], eps = 1e-5) -> [b n D]:
    mu = mean(x, over=D)
    v = mean(square(x - mu), over=D)
    return (x - mu) / sqrt(v + eps)

fn mlp(m: Mlp, x: Tokens) -> Tokens = x |> norm |> matmul(m.w1) |> gelu |> matmul(m.w2)

fn _private(x: [n]) -> [n] = x

## Number of classes.
dim C = 3

## Class scores.
dim Scores = [b C] Logit over C

fn head(x: [b D], w: [D C]) -> Scores = x @ w

## The norms' epsilon, for the files that import this one.
const eps = 1e-5
