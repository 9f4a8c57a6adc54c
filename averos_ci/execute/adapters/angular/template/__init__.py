"""The Angular workspace before the first schematic: the Node toolchain, ``ng new`` + ``ng add``
(from the registry or a local tarball), and the cached template workspace copied from."""
