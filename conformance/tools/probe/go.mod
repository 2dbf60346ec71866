module wpc.local/tests/probe

go 1.26.0
