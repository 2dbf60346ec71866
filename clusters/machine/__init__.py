"""The host machine the clusters run on: its one cluster, its processes, its signals, its packages.

`holding` records which provider's cluster holds the machine (one at a time);
`processes` starts and stops the host processes of cluster components and proves
them healthy; `interrupting` turns SIGINT and SIGTERM into an exception so `up`
can roll back; `hostdeps` installs the Debian packages the host lacks. Nothing
here knows a provider: the providers use these rooms.
"""
