{(None, 0, "inductor"): __import__("os")}
