"""IR plumbing over xDSL: small, named fixes and fast paths, each a candidate for upstream."""
