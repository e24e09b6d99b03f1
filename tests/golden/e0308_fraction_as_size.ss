## A fraction is no size: the help writes it as a division.

dim Dh = 16
dim Drot = Dh * 0.25   #~ E0308
dim Wide = 0.75 * Dh   #~ E0308

fn half() -> [1] = zeros[0.5]   #~ E0308
