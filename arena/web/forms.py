"""Forms of the pages: they parse input only; the services apply the rules."""

from __future__ import annotations

import re

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.db.models import Q

from arena.bots.models import BOT_NAME_VALIDATOR, Bot
from arena.bots.selectors import bot_by_name_or_id
from arena.bots.uploads import MAX_PY_BYTES, MAX_UNPACKED_BYTES, MAX_ZIP_BYTES, MAX_ZIP_ENTRIES
from arena.ladders.models import Ladder
from arena.matches.models import LISTED_KINDS, MAX_SEED, Match
from arena.web.selectors import game_list
from engines import get_game

UPLOAD_HELP = (
    f"A .py file (at most {MAX_PY_BYTES // 2**20} MiB) or a .zip (at most {MAX_ZIP_BYTES // 2**20} MiB "
    f"packed, {MAX_UNPACKED_BYTES // 2**20} MiB unpacked, {MAX_ZIP_ENTRIES} entries) with main.py at its root; "
    "or in another language one source file (.js, .cpp, .rs, .go, .java) or a .zip with main.js, main.cpp, "
    "main.rs, main.go or Main.java at its root (C++, Rust, Go and Java are built first: the build's messages "
    "are on the bot's page)."
)


class SignupForm(UserCreationForm):
    """A new account: username, an e-mail address (optional: it lets you reset your password) and
    the password twice."""

    email = forms.EmailField(required=False, help_text="Optional: where a password reset link is sent.")

    class Meta(UserCreationForm.Meta):
        fields = ["username", "email"]


class MatchFilterForm(forms.Form):
    """The match list's filters; every field is optional and a bad value is an error, not ignored."""

    game = forms.ChoiceField(required=False, choices=())
    ladder = forms.ChoiceField(required=False, choices=())
    bot = forms.CharField(required=False, max_length=40, help_text="A bot's name (or id).",
                          widget=forms.TextInput(attrs={"size": 16, "placeholder": "bot name"}))
    kind = forms.ChoiceField(required=False, choices=())
    status = forms.ChoiceField(required=False, choices=())

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        anything = [("", "any")]
        self.fields["game"].choices = anything + [(g["id"], g["title"]) for g in game_list()]
        self.fields["ladder"].choices = anything + list(
            Ladder.objects.order_by("-active", "game", "seat_count", "slug").values_list("slug", "name"))
        self.fields["kind"].choices = anything + [c for c in Match.Kind.choices if c[0] in LISTED_KINDS]
        self.fields["status"].choices = anything + list(Match.Status.choices)

    def clean_bot(self):
        """The Bot named (case-insensitively) or numbered so; None when empty."""
        value = self.cleaned_data["bot"].strip()
        if not value:
            return None
        bot = bot_by_name_or_id(value)
        if bot is None:
            raise forms.ValidationError(f"No bot is called {value!r}.")
        return bot


class BotCreateForm(forms.Form):
    """A new bot with its first version."""

    name = forms.CharField(max_length=40, help_text=BOT_NAME_VALIDATOR.message)
    game = forms.ChoiceField(choices=())
    description = forms.CharField(max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3}))
    file = forms.FileField(help_text=UPLOAD_HELP, allow_empty_file=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g["id"], g["title"]) for g in game_list()]


class BotVersionForm(forms.Form):
    """A new version of an existing bot."""

    file = forms.FileField(help_text=UPLOAD_HELP, allow_empty_file=True)


class BotSettingsForm(forms.Form):
    """What an owner may change on a bot."""

    description = forms.CharField(max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3}))
    is_active = forms.BooleanField(required=False, label="Plays ladder matches")


class ChallengeForm(forms.Form):
    """An unrated challenge: the owner's bot (seat 0) against bots named in this field, in seat order.

    Bots are named, not picked from a list: a game may have thousands of them."""

    opponents = forms.CharField(
        max_length=500, help_text="Bot names of the same game, separated by commas or spaces; seats follow "
                                  "this order after your bot.",
        widget=forms.TextInput(attrs={"size": 40, "placeholder": "e.g. deep-dive-heuristic, rival-bot"}))
    seed = forms.IntegerField(required=False, min_value=0, max_value=MAX_SEED, help_text="Random if empty.")

    def __init__(self, *args, bot, **kwargs):
        super().__init__(*args, **kwargs)
        self.bot = bot
        # A game with a solo mode may be challenged alone (Divee's titles, Dive's village chief).
        if get_game(bot.game).min_players == 1:
            self.fields["opponents"].required = False
            self.fields["opponents"].help_text += " Leave empty for a solo game."

    def clean_opponents(self):
        """The named bots, in the order given (an id works too); every name must exist."""
        names = [part for part in re.split(r"[\s,]+", self.cleaned_data["opponents"]) if part]
        if len(names) > 5:
            raise forms.ValidationError("At most 5 opponents.")
        fields = ("id", "name", "game", "active_version_id", "owner_id")
        by_name = Q()
        for name in names:
            by_name |= Q(name__iexact=name)
        found = {b.name.lower(): b for b in Bot.objects.filter(by_name).only(*fields)} if names else {}
        bots, missing = [], []
        for name in names:
            bot = found.get(name.lower())
            if bot is None and name.isdigit() and len(name) <= 18:
                bot = Bot.objects.filter(pk=int(name)).only(*fields).first()
            if bot is None:
                missing.append(name)
            else:
                bots.append(bot)
        if missing:
            raise forms.ValidationError(f"No bot is called {', '.join(missing)}.")
        return bots
