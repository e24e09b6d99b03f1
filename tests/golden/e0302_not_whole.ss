## Sizes that aren't whole numbers ≥ 0: a negative dim and a division by zero.

dim S = 16
dim K = 20
dim Out = S - K + 1   #~ E0302
dim Zero = 0
dim Bad = S / Zero   #~ E0302

fn pool(x: [b Out]) -> [b] = sum(x, over=Out)

fn by_zero(x: [n / 0]) -> [n] = x   #~ E0302
