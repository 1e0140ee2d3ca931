"""Exercises graded by what the kernel does to memory (Qt-free).

``catalog`` lists them (statement, picture, starter, signature, the grader's launches, hints,
checks); ``checks`` turns a traced run of each case into one verdict per check; ``explain``
names the bug behind a failure from the trace alone; ``handout`` writes the list as one HTML
page. The runs themselves are ``backends.exercise``'s: this package never runs a kernel.
"""
