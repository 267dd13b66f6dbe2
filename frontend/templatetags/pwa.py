"""The installable site's lines in every page's <head> (frontend/base.html): the manifest, the
colour of the browser's bar and the icon iOS puts on the home screen."""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

# From site.css's palette: the header's white (--grey-0) for the browser's bar, the page's
# background (--grey-50) for the splash screen of the installed app.
PWA_COLOURS = {"theme": "#ffffff", "background": "#f6f7f8"}


@register.simple_tag
def pwa_head() -> SafeString:
    return format_html(
        '<link rel="manifest" href="{}">\n'
        '  <meta name="theme-color" content="{}">\n'
        '  <link rel="apple-touch-icon" href="{}">',
        reverse("manifest"),
        PWA_COLOURS["theme"],
        static("frontend/icons/apple-touch-icon.png"),
    )
