{(None, 0, "inductor"): ("k", "p", 2.7)}
