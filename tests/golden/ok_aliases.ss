## Shape aliases, with and without a dtype and a domain; generics stay generic.

dim S = 16
dim D = 8

dim Images = [b 1 S S]
dim Pixels = [b 1 S S] u8
dim Feats = [b n D]
dim Probs = [b D] Prob over D
dim Anything = [...] u8

fn brighter(img: Images) -> Images = img * 2.0

fn to_unit(img: Pixels) -> Images Unit = img to Unit

fn half(x: Feats) -> Feats bf16 NonNeg = relu(x to bf16)

fn same(x: Feats, y: Feats) -> Feats = x + y

fn from_logits(x: [b D]) -> Probs = softmax(x, over=D)

fn keep(x: Anything) -> Anything = x

fn domain_only(x: Pos) -> NonNeg = x
