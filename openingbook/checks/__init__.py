"""The checks of books: validate against a deeper book (:mod:`~openingbook.checks.validate`),
diff (:mod:`~openingbook.checks.diff`), check a file and re-solve its records
(:mod:`~openingbook.checks.check`), count (:mod:`~openingbook.checks.stats`,
:mod:`~openingbook.checks.plycounts`), against the published figures
(:mod:`~openingbook.checks.published`) and the sizes of complete books
(:mod:`~openingbook.checks.booksizes`); :mod:`~openingbook.checks.report` holds what the
reports share.
"""
