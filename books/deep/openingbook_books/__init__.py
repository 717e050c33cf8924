"""The deep books of openingbook (data only): ``book13-dist.c4b``, ``book14.c4b``,
``book14-dist.c4b`` and ``book15-dist.c4b`` in this directory, found by name by
``openingbook.booknames`` (``openingbook lookup 15-dist ...``) once installed."""
