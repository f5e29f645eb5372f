"""Production safety: ``manage.py check --deploy`` with a production-like environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"DEBUG": "0", "SECRET_KEY": "x9!Qm2#vL7@pR4$tW8%zK1^nB6&hJ3*cF5(dG0)sA-yE+uI=oP" * 2,
              "ALLOWED_HOSTS": "arena.example.org"}
KNOBS = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
         "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
         "SECURE_PROXY_SSL_HEADER", "CSRF_TRUSTED_ORIGINS")


def check_deploy(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in KNOBS}
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                          cwd=ROOT, env={**clean, **PRODUCTION, **env}, capture_output=True, text=True,
                          timeout=120)


def test_with_debug_off_the_cookies_are_https_only_and_only_the_https_choices_remain():
    result = check_deploy()
    output = result.stdout + result.stderr
    assert "W012" not in output and "W016" not in output  # session and CSRF cookies are secure
    assert "W004" in output and "W008" in output  # HSTS and the redirect: set in docs/deploy.md


def test_the_documented_https_settings_pass_check_deploy():
    result = check_deploy(SECURE_SSL_REDIRECT="1", SECURE_HSTS_SECONDS="31536000",
                          SECURE_HSTS_INCLUDE_SUBDOMAINS="1", SECURE_HSTS_PRELOAD="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
