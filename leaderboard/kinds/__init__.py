"""One module per benchmark kind: what the site shows and seeds for it (``leaderboard.kinds.registry``).

The package's app imports every kind module once Django is ready, and each
registers its ``SiteKind``; the rest of the site asks ``registry.site_kind``.
"""
