/* The commands, in alphabetical order (a test checks it): CMD(name). */
CMD(info)
CMD(layout)
CMD(shapes)
CMD(split)
