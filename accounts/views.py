"""Browser pages of accounts that allauth doesn't provide."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.forms import UserSettingsForm
from accounts.services import user_settings_update


@login_required
@require_http_methods(["GET", "POST"])
def user_settings(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = UserSettingsForm.for_user(request.user, data=request.POST)
        if form.is_valid():
            user_settings_update(user=request.user, changes=form.cleaned_data)
            messages.success(request, "Your settings have been saved.")
            return redirect("settings")
    else:
        form = UserSettingsForm.for_user(request.user)
    return render(request, "accounts/settings.html", {"form": form})
