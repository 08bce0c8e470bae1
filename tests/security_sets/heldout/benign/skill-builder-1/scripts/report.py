def table(results):
    lines = ["| check | result | note |", "| --- | --- | --- |"]
    lines += [f"| {name} | {'pass' if ok else 'FAIL'} | {note} |" for name, ok, note in results]
    return "\n".join(lines)
