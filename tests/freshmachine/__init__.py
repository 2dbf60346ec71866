"""The README's commands on a fresh Debian 12 (a bare bookworm container): `make fresh-debian`."""
