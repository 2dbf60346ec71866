"""We test these aspects of the child's environment: bootloader variables are
removed, PyInstaller's LD_LIBRARY_PATH is dropped or restored, and a TMPDIR set
only for the executor is removed while the container's own TMPDIR is restored.
"""

from __future__ import annotations

from reference_impl.executor.environment import user_environment

FROZEN = {
    "STATICX_BUNDLE_DIR": "/var/run/argo/staticx-abc",
    "STATICX_PROG_PATH": "/var/run/argo/argoexec",
    "_PYI_APPLICATION_HOME_DIR": "/var/run/argo/_MEI1",
    "_PYI_ARCHIVE_FILE": "/var/run/argo/staticx-abc/argoexec",
    "_PYI_PARENT_PROCESS_LEVEL": "1",
    "_PYI_LINUX_PROCESS_NAME": "argoexec",
    "LD_LIBRARY_PATH": "/var/run/argo/_MEI1",
}


def test_bootloader_variables_are_removed():
    env = user_environment({**FROZEN, "PATH": "/bin", "FOO": "bar"})
    assert env == {"PATH": "/bin", "FOO": "bar"}


def test_the_users_ld_library_path_is_restored():
    env = user_environment({**FROZEN, "LD_LIBRARY_PATH_ORIG": "/opt/lib"})
    assert env == {"LD_LIBRARY_PATH": "/opt/lib"}


def test_ld_library_path_is_kept_when_not_frozen():
    assert user_environment({"LD_LIBRARY_PATH": "/opt/lib"}) == {
        "LD_LIBRARY_PATH": "/opt/lib"
    }


def test_tmpdir_set_for_the_executor_is_removed():
    env = user_environment(
        {"TMPDIR": "/var/run/argo", "WPC_EXECUTOR_TMPDIR": "/var/run/argo"}
    )
    assert env == {}


def test_the_containers_own_tmpdir_is_restored():
    env = user_environment(
        {
            "TMPDIR": "/var/run/argo",
            "WPC_EXECUTOR_TMPDIR": "/var/run/argo",
            "WPC_USER_TMPDIR": "/scratch",
        }
    )
    assert env == {"TMPDIR": "/scratch"}


def test_an_unrelated_tmpdir_is_left_alone():
    env = user_environment(
        {"TMPDIR": "/scratch", "WPC_EXECUTOR_TMPDIR": "/var/run/argo"}
    )
    assert env == {"TMPDIR": "/scratch"}
