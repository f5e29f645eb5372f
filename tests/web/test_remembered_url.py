"""The remembered ``{% url %}`` (every template's): the same links as Django's own tag."""

from django.template import Context, Template
from django.test import override_settings
from django.urls import reverse


def render(source: str, **context) -> str:
    return Template(source).render(Context(context))


def test_each_link_is_what_reverse_gives_for_its_arguments():
    assert render("{% url 'web:profile' name %}", name="ann") == reverse("web:profile", args=["ann"])
    assert render("{% url 'web:profile' username=name %}", name="bob") == "/users/bob/"


def test_equal_arguments_of_different_types_keep_their_own_links():
    # 1 == True and hash alike: a key without types would hand the first one's link to the other.
    assert render("{% url 'web:profile' v %}", v=1) == "/users/1/"
    assert render("{% url 'web:profile' v %}", v=True) == "/users/True/"
    assert render("{% url 'web:profile' v %}", v=1.0) == "/users/1.0/"


def test_a_link_follows_the_script_prefix_it_is_served_under():
    assert render("{% url 'web:games' %}") == "/games/"
    with override_settings(FORCE_SCRIPT_NAME="/arena/"):
        from django.urls import set_script_prefix
        set_script_prefix("/arena/")
        try:
            assert render("{% url 'web:games' %}") == "/arena/games/"
        finally:
            set_script_prefix("/")
    assert render("{% url 'web:games' %}") == "/games/"


def test_as_var_and_a_missing_view_behave_as_djangos_tag():
    assert render("{% url 'web:games' as link %}[{{ link }}]") == "[/games/]"
    assert render("{% url 'web:no_such_page' as link %}[{{ link }}]") == "[]"
