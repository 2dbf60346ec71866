"""What one test gets while it runs: the suite's fixtures, deferred teardown, failure evidence, Allure."""

from __future__ import annotations
