"""The work on books: enumerate a ply's positions (:mod:`~openingbook.pipeline.enumeration`),
build books (:mod:`~openingbook.pipeline.build`, in work directories of
:mod:`~openingbook.pipeline.workdir`, on the executors of
:mod:`~openingbook.pipeline.executors`), merge shards and parts
(:mod:`~openingbook.pipeline.merge`), derive shallower books
(:mod:`~openingbook.pipeline.derive`), convert (:mod:`~openingbook.pipeline.convert`) and
export (:mod:`~openingbook.pipeline.export`) them. Each works on book models
(:class:`openingbook.model.BookModel`): a format reads a book into one, and its ``write``
writes one.
"""
