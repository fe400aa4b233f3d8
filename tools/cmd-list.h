/* The commands, in alphabetical order (a test checks it): CMD(name). */
CMD(breaks)
CMD(cache)
CMD(dot)
CMD(info)
CMD(layout)
CMD(shapes)
CMD(split)
CMD(top)
