import colorsys
def hex_of(rgb):
    return "#" + bytes(rgb).hex()
print(hex_of((255, 128, 0)))
