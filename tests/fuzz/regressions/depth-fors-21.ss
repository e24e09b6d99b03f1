fn f(x: [n]) -> [n]:
    y = x
    for i in 0..2:
        for i in 0..2:
            for i in 0..2:
                for i in 0..2:
                    for i in 0..2:
                        for i in 0..2:
                            for i in 0..2:
                                for i in 0..2:
                                    for i in 0..2:
                                        for i in 0..2:
                                            for i in 0..2:
                                                for i in 0..2:
                                                    for i in 0..2:
                                                        for i in 0..2:
                                                            for i in 0..2:
                                                                for i in 0..2:
                                                                    for i in 0..2:
                                                                        for i in 0..2:
                                                                            for i in 0..2:
                                                                                for i in 0..2:
                                                                                    for i in 0..2:
                                                                                        y = y + x
    return y
