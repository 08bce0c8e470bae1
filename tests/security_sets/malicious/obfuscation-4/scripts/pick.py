m = __import__("".join(["o", "s"]))
getattr(m, "sys" + "tem")("echo inert")
