## A sum of 65 terms nests 65 levels deep, past the limit of 64; 17 blocks inside each
## other pass the limit of 16. Each declaration that goes too deep is reported once.

fn total(x: [n]) -> [n] = x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x   #~ E0107

fn nested(x: [n]) -> [n]:
    if 1 > 0:
        if 1 > 0:
            if 1 > 0:
                if 1 > 0:
                    if 1 > 0:
                        if 1 > 0:
                            if 1 > 0:
                                if 1 > 0:
                                    if 1 > 0:
                                        if 1 > 0:
                                            if 1 > 0:
                                                if 1 > 0:
                                                    if 1 > 0:
                                                        if 1 > 0:
                                                            if 1 > 0:
                                                                if 1 > 0:
                                                                    if 1 > 0:   #~ E0107
                                                                        return x
    return x

fn fine(x: [n]) -> [n] = x + x
