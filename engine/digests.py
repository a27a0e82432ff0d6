"""SHA-256 and SHA-1 from CPython's own builtin modules: `import hashlib` loads OpenSSL (`_hashlib`, ~4 ms of
`smq compile`'s start-up) for digests that are the same standard algorithms, byte for byte (the layer's
fingerprint stays SHA-256 of its files' bytes). `hashlib` is the fallback where a build lacks the builtins."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import sha1, sha256
else:
    try:  # CPython 3.12+: _sha2; 3.11: _sha256
        from _sha2 import sha256
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    try:
        from _sha1 import sha1
    except ImportError:
        from hashlib import sha1

__all__ = ["sha1", "sha256"]
