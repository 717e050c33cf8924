"""The work on books: enumerate a ply's positions (:mod:`~openingbook.pipeline.enumeration`),
build books (:mod:`~openingbook.pipeline.build`, in work directories of
:mod:`~openingbook.pipeline.workdir`, on the executors of
:mod:`~openingbook.pipeline.executors`), merge shards and parts
(:mod:`~openingbook.pipeline.merge`; what was solved is written through
:func:`openingbook.formats.write_solved_book`), derive shallower books
(:mod:`~openingbook.pipeline.derive`), convert (:mod:`~openingbook.pipeline.convert`) and
export (:mod:`~openingbook.pipeline.export`) them.
"""
