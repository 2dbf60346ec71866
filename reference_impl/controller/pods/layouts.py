"""The two pod layouts: legacy (init + wait) and init-less (supervisor, beta in Argo v4.1).

Every difference between the layouts lives here, behind one small interface, as in Argo's
`workflow/controller/workflowpod_layout.go` (`podLayout`, `legacyLayout`,
`initlessLayout`). The pod builder asks the layout and never checks a flag itself.

=================================  ================================  =================================
aspect                             legacy                            init-less
=================================  ================================  =================================
Argo init containers               `[init]`                          none
aux container                      `wait` (`argoexec wait`)          `supervisor` (`argoexec
                                                                     supervisor`, `ARGO_INITLESS_POD`)
argoexec in user containers        `/var/run/argo/argoexec`          `/argo-bin/bin/argoexec` from the
                                   (copied by `init`)                `argoexec-bin` image volume
extra pod volume                   none                              `argoexec-bin` (image volume)
wrapped user containers            unchanged                         mount `/argo-bin` read-only, and
                                                                     `ARGO_WAIT_FOR_READY=true` when
                                                                     the pod has a supervisor
=================================  ================================  =================================
"""

from __future__ import annotations

from typing import Any
from typing import Protocol

from reference_impl import common
from reference_impl.controller.pods import containers

Json = dict[str, Any]


class PodLayout(Protocol):
    """What differs between the legacy and the init-less pod shape."""

    name: str
    aux_name: str
    binary_path: str

    def aux_command(self, log_options: list[str]) -> list[str]:
        """Return the aux container's command."""
        ...

    def aux_extra_env(self) -> list[Json]:
        """Return variables only the aux container of this layout gets."""
        ...

    def has_init_container(self) -> bool:
        """Return whether Argo's `init` container is part of the pod."""
        ...

    def extra_volumes(self, *, executor_image: str, pull_policy: str) -> list[Json]:
        """Return layout-specific pod volumes."""
        ...

    def decorate_user_container(
        self, container: Json, *, has_aux: bool, wait_for_ready_env: bool = True
    ) -> None:
        """Apply per-user-container changes; called once for every emissary-wrapped container."""
        ...

    def main_needs_template_env(self, *, has_aux: bool) -> bool:
        """Return whether `main` must receive `ARGO_TEMPLATE` because nobody writes the file."""
        ...


class LegacyLayout:
    """Argo's default: `init` stages the template and inputs, `wait` collects outputs."""

    name = "legacy"
    aux_name = common.WAIT
    binary_path = common.EMISSARY_LEGACY

    def aux_command(self, log_options: list[str]) -> list[str]:
        """Return `argoexec wait <logopts>`."""
        return ["argoexec", "wait", *log_options]

    def aux_extra_env(self) -> list[Json]:
        """Return nothing: `wait` only has the common executor variables."""
        return []

    def has_init_container(self) -> bool:
        """Return True: `init` must copy argoexec into `/var/run/argo`."""
        return True

    def extra_volumes(self, *, executor_image: str, pull_policy: str) -> list[Json]:
        """Return nothing: argoexec reaches user containers through `/var/run/argo`."""
        return []

    def decorate_user_container(
        self, container: Json, *, has_aux: bool, wait_for_ready_env: bool = True
    ) -> None:
        """Do nothing: the init container is the barrier before user containers start."""

    def main_needs_template_env(self, *, has_aux: bool) -> bool:
        """Return False: `init` always writes `/var/run/argo/template`."""
        return False


class InitlessLayout:
    """Argo's opt-in layout: `supervisor` runs beside main and replaces both init and wait."""

    name = "initless"
    aux_name = common.SUPERVISOR
    binary_path = common.EMISSARY_INITLESS

    def aux_command(self, log_options: list[str]) -> list[str]:
        """Return `argoexec supervisor <logopts>`."""
        return ["argoexec", "supervisor", *log_options]

    def aux_extra_env(self) -> list[Json]:
        """Return `ARGO_INITLESS_POD=true`, set on the supervisor only (not on main)."""
        return [containers.env(common.ENV_INITLESS_POD, "true")]

    def has_init_container(self) -> bool:
        """Return False: pods schedule with zero Argo init containers."""
        return False

    def extra_volumes(self, *, executor_image: str, pull_policy: str) -> list[Json]:
        """Return the `argoexec-bin` image volume holding the executor binary."""
        return [
            {
                "name": common.EXECUTOR_BIN_VOLUME,
                "image": {"reference": executor_image, "pullPolicy": pull_policy},
            }
        ]

    def decorate_user_container(
        self, container: Json, *, has_aux: bool, wait_for_ready_env: bool = True
    ) -> None:
        """Mount `/argo-bin`, and make emissary wait for the supervisor's READY marker."""
        if has_aux and wait_for_ready_env:
            container.setdefault("env", []).append(
                containers.env(common.ENV_WAIT_FOR_READY, "true")
            )
        container.setdefault("volumeMounts", []).append(
            dict(containers.EXECUTOR_BIN_MOUNT)
        )

    def main_needs_template_env(self, *, has_aux: bool) -> bool:
        """Return True when there is no supervisor to write the template file."""
        return not has_aux


def for_pod(*, initless: bool) -> PodLayout:
    """Return the layout for a pod about to be built."""
    return InitlessLayout() if initless else LegacyLayout()
