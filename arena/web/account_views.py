"""Account pages: log in (throttled), sign up (throttled), password change and reset, profiles.

The password views are Django's own; the reset mail goes to the console in the demo and to SMTP
when ``EMAIL_HOST`` is set (docs/deploy.md). Login, the admin's login, sign-up and reset requests
are throttled per client address (``arena.throttling``).
"""

from __future__ import annotations

import functools

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.decorators import method_decorator

from arena.throttling import client_address, login_throttle_hit, throttle_hit, too_many_message
from arena.web.forms import SignupForm
from arena.web.selectors import profile_bots


def _refused(request, message: str, wait: int | None):
    response = render(request, "registration/throttled.html", {"message": message}, status=429)
    if wait:
        response["Retry-After"] = str(wait)
    return response


def throttle_password_posts(view):
    """Refuse a login POST (429) once the client address or the username is over its rate."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method == "POST":
            wait = login_throttle_hit(request, request.POST.get("username"))
            if wait is not None:
                return _refused(request, too_many_message("login attempts", wait), wait)
        return view(request, *args, **kwargs)

    return wrapped


@method_decorator(throttle_password_posts, name="dispatch")
class LoginView(auth_views.LoginView):
    """Django's login page, throttled."""


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link by mail (throttled per address: each request sends a mail)."""

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def post(self, request, *args, **kwargs):
        wait = throttle_hit("password_reset", client_address(request))
        if wait is not None:
            return _refused(request, too_many_message("password reset requests", wait), wait)
        return super().post(request, *args, **kwargs)


def signup(request):
    """Create an account (throttled per address) and log in."""
    if request.user.is_authenticated:
        return redirect("web:my_bots")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        wait = throttle_hit("signup", client_address(request))
        if wait is not None:
            return _refused(request, too_many_message("new accounts from your address", wait), wait)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}. Upload your first bot below.")
            return redirect("web:bot_create")
    return render(request, "registration/signup.html", {"form": form})


def profile(request, username: str):
    """A user's public page: their bots with their standing."""
    user = get_object_or_404(get_user_model().objects.only("id", "username", "date_joined"), username=username)
    return render(request, "web/profile.html", {"profile_user": user, "bots": profile_bots(user=user)})
