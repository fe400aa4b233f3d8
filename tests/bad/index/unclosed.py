{(None, 0, 'inductor'): ('k', 'p', 0)
