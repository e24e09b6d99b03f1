import python shapes

fn show_classes():
    for name in shapes.CLASSES:
        print(name)
