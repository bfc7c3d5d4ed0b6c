"""Single-site mutation operators on Python's AST, shared by the two users of mutations.

The package owns the byte-offset view of a file (``view``), operator tokens and finding them between two
operands (``tokens``), the swap tables (``tables``) and, per AST node, the finders of sites (``sites`` for the
families that swap an operator token, ``rewrites`` for the others, ``omissions`` for what is left out). A
site is a byte-span edit of the original file plus a builder of the intended node; nothing here chooses,
checks or applies.

Two users are thin policies over it:

- the mutation-task engine (:mod:`bench.mutate.operators`) injects one bug per function: the *forward*
  changes, tokens found exactly, spellings verified against the intended AST, a seeded choice;
- the repairer's candidates (:mod:`bench.model.repair_candidates`) propose undoing such a bug: each forward
  change, its inverse and a few classic extras, tokens searched more loosely, one spelling per site.

=================  ===========================================  ======================  ===================
family             change                                       engine operator         repairer operator
=================  ===========================================  ======================  ===================
``comparison``     ``<``↔``<=``, ``>``↔``>=``, ``==``↔``!=``,   ``comparison``          ``cmp`` (same
                   ``is``↔``is not``, ``in``↔``not in``                                 table: its own
                                                                                        inverse)
``arithmetic``     ``+``↔``-``, ``*``→``/``, ``/``→``*``,       ``arithmetic``          ``arith``: forward
                   ``//``→``/``, ``%``→``//``, ``**``→``*``,    (forward; not where an  ∪ inverses ∪
                   ``<<``↔``>>``, ``&``↔``|``, ``^``→``&``      operand is obviously    ``*``↔``//``
                   (augmented ``+=`` … too)                     text)
``boolean``        ``and``↔``or``                               ``boolean_swap``        ``boolop``
``constant``       integer literal ``n`` → ``n + 1``/``n - 1``  ``constant_off_by_one`` ``const``
                                                                (one literal, same      (decimal)
                                                                base)
``bound``          ``x`` → ``x + 1``/``x - 1``                  ``slice_off_by_one``    ``bound`` (slice
                                                                (non-literal slice      bounds, indexes,
                                                                bounds)                 ``range()`` args)
``negate``         condition ``c`` → ``not c``                  ``negate_condition``    ``negate``
``drop-not``       ``not c`` → ``c``                            ``negate_condition``    ``drop-not`` (any
                                                                (conditions)            ``not``)
``return-none``    ``return X`` → ``return None``               ``return_none``         —
``return-name``    ``return`` → ``return <name>``               —                       ``return``
``swap-args``      two positional arguments exchanged           —                       ``swap-args``
=================  ===========================================  ======================  ===================

The omission families (``omissions``: a clause of ``and``/``or``, a case of a membership or type test, a
clamp, a normalising call, a literal keyword argument, an f-string's ``f`` left out) are the engine's alone
(version 4): the repairer cannot restore what it never saw.

A new operator: add its tokens to ``tokens.TOKENS`` and its forward swaps to a table in ``tables`` (a new
family: a finder in ``sites`` or ``rewrites`` and a family name), then name it in each user that should
propose it (``bench/mutate/operators.py`` and ``bench/model/repair_candidates.py``).
"""
