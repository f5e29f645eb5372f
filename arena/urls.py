from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from arena.web import account_views

urlpatterns = [
    # The admin's login, throttled like the site's (before the admin's own route to it).
    path("admin/login/", account_views.throttle_password_posts(admin.site.login)),
    path("admin/", admin.site.urls),
    path("api/", include("arena.api.urls")),
    path("accounts/login/", account_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/change/done/", auth_views.PasswordChangeDoneView.as_view(),
         name="password_change_done"),
    path("accounts/password/reset/", account_views.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path("accounts/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(),
         name="password_reset_confirm"),
    path("accounts/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    # Browsers ask for /favicon.ico where a page names no icon (the admin's): answer it, not a 404.
    path("favicon.ico", RedirectView.as_view(url=static("arena/favicon.svg"), permanent=True)),
    path("", include("arena.web.urls")),
]

handler400 = "arena.api.errors.bad_request"
handler404 = "arena.api.errors.not_found"
handler500 = "arena.api.errors.server_error"
