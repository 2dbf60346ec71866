"""Getting images onto a cluster's nodes without Docker: archives, and their push to a registry.

`archives` writes OCI image archives from the Dockerfile subset the repo's
Dockerfiles use; `registry` pushes such an archive over the OCI Distribution API
(the existing provider's only way onto its nodes), with the credentials
`registryauth` finds where `docker login` left them. `pause/` is the source of our
own pause program, which the local and kind providers build.
"""
