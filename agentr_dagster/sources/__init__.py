"""Search sources: small clients for the public literature databases, behind one contract (``contract.py``)."""
