import ast
import pandas as pd

def run(model, loader):
    model.eval()
    df = pd.DataFrame({"a": [1, 2]})
    df.eval("b = a * 2", inplace=True)
    cfg = ast.literal_eval("{'x': 1}")
    return cfg
