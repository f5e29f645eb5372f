"""``{% url %}`` that remembers what it reversed (installed as a template builtin, so every
template's ``{% url %}`` is this one).

Django's reverse walks the resolver and quotes each argument: ~40 µs, and a list page links every
match, seat and bot, 200+ links a page, a fifth of a match list's CPU. A path depends only on the
view name, the arguments, the current app, the urlconf and the script prefix (the site has no
per-language patterns), so those are the key; a changed ROOT_URLCONF clears it.
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()


def _reverse(view_name, args: tuple, kwargs: tuple, current_app, urlconf, prefix) -> str:
    # Equal arguments of different types can reverse differently (True and 1, 1.0 and 1), and a
    # tuple key compares them equal: the key carries each argument's type too.
    typed_args = tuple((type(a), a) for a in args)
    typed_kwargs = tuple((k, type(v), v) for k, v in kwargs)
    return _remembered(view_name, typed_args, typed_kwargs, current_app, urlconf, prefix)


@lru_cache(maxsize=50_000)
def _remembered(view_name, typed_args: tuple, typed_kwargs: tuple, current_app, urlconf, prefix) -> str:
    return reverse(view_name, urlconf=urlconf, args=[a for _, a in typed_args],
                   kwargs={k: v for k, _, v in typed_kwargs}, current_app=current_app)


def remembered_reverse(view_name: str, *args) -> str:
    """``reverse(view_name, args=args)``, remembered like the tag's."""
    return _reverse(view_name, args, (), None, get_urlconf(), get_script_prefix())


@receiver(setting_changed)
def _forget(*, setting, **_) -> None:
    if setting in ("ROOT_URLCONF", "FORCE_SCRIPT_NAME"):
        _remembered.cache_clear()


class RememberedURLNode(URLNode):
    def render(self, context):
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple(sorted((k, v.resolve(context)) for k, v in self.kwargs.items()))
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            try:
                url = _reverse(view_name, args, kwargs, current_app, get_urlconf(), get_script_prefix())
            except TypeError:  # an unhashable argument: reverse it unremembered
                url = reverse(view_name, args=args, kwargs=dict(kwargs), current_app=current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    node = django_url(parser, token)
    return RememberedURLNode(node.view_name, node.args, node.kwargs, node.asvar)
