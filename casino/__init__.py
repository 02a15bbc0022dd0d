"""Casino War: the Django app (tables, rounds) around the framework-free `engine` and `odds`."""
