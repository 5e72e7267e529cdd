"""Classifier-study tools that share no LR code with the case pipeline.

* :mod:`.fusion` - worst-case evaluation of one component in a fused binary classifier;
* :mod:`.label_noise` - precision and recall corrected for assessor label errors, and the
  assessors' error rates by EM;
* :mod:`.multiclass` - temperature calibration of a multiclass classifier (TS, EC), ECE and
  the Brier decomposition.
"""
