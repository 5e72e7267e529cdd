"""The local web app of ``forensic-lr serve``: examiners, reviewers and courses in a browser.

The web layer computes nothing: its routes call the library functions the command line
calls (:func:`forensic_lr.casework.load_case`, :func:`forensic_lr.casework.run_case_full`,
:func:`forensic_lr.report.build_report`, :func:`forensic_lr.casework.evaluate_evidence`).
Modules: :mod:`.register` (the SQLite case register, users and the hash-chained audit log),
:mod:`.security` (token, sessions, Host check, CSRF), :mod:`.cases` (case folders, uploads
and runs), :mod:`.teaching` (the teaching view's fits), :mod:`.app` (routes and pages).
Nothing here is imported by ``import forensic_lr``: only ``forensic-lr serve`` loads the
web stack.
"""
