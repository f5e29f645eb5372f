"""Set up the demo: an admin account (credentials printed), the built-in and starter bots of
every registered game, one ladder per game at a sensible seat count plus the solo ladders, and a
Swiss tournament of Deep Sea Adventure a few minutes ahead (``ARENA_DEMO_TOURNAMENT_DELAY``
seconds, 180 by default; 0 schedules none) unless one is scheduled or running already.

    python manage.py arena_demo

Idempotent: run it again and it keeps what exists (a changed starter kit becomes a new version).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from arena.bots.models import Bot
from arena.bots.services import bot_create, bot_version_create
from arena.env import envint, envstr
from arena.ladders.models import Ladder
from arena.ladders.services import ladder_create, ladder_enter
from arena.runs.smoke import bot_builtin_ensure, system_user
from arena.tournaments.models import Tournament
from arena.tournaments.services import tournament_create
from engines import list_games

PREFERRED_SEATS = 4


def demo_seat_count(game, bots_available: int) -> int:
    """Up to four seats, no more than the demo has bots (a bot never meets itself), within the game's range."""
    return max(game.min_players, min(game.max_players, PREFERRED_SEATS, max(2, bots_available)))


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def handle(self, *args, **options):
        users = get_user_model()
        system = system_user()
        username, password, note = self._admin(users)
        kits = Path(settings.BASE_DIR) / "starter_kits"
        for game in list_games():
            with transaction.atomic():
                bots = [bot_builtin_ensure(owner=system, game=game.id, builtin=name) for name in game.bots]
                starter = self._starter(system, game.id, kits / game.id / "main.py")
                available = len(bots) + (starter is not None)
                ladders = [self._ladder(game, demo_seat_count(game, available))]
                if game.min_players == 1:
                    ladders.append(self._ladder(game, 1))
                for ladder in ladders:
                    for bot in Bot.objects.filter(game=game.id, active_version__isnull=False):
                        ladder_enter(ladder=ladder, bot=bot)
            names = ", ".join(b.name for b in bots) + (f", {starter.name} (starter kit)" if starter else "")
            self.stdout.write(f"{game.title}: ladders {', '.join(ladder.slug for ladder in ladders)}; bots {names}")
        tournament = self._tournament()
        if tournament is not None:
            self.stdout.write(f"Tournament: {tournament.name} starts at {tournament.start_at:%H:%M:%S} UTC "
                              f"(/tournaments/{tournament.slug}/)")
        port = settings.PORT
        self.stdout.write(self.style.SUCCESS(
            f"\nAdmin account: {username} / {password}  {note}\n"
            f"Site:  http://127.0.0.1:{port}/    Admin: http://127.0.0.1:{port}/admin/    "
            f"API: http://127.0.0.1:{port}/api/"))

    def _admin(self, users):
        """Create the admin account once; its password is kept in the var dir so runs can print it."""
        username = envstr("ARENA_ADMIN_USER", "admin")
        secret_file = Path(settings.VAR_DIR) / "admin-password.txt"
        wanted = envstr("ARENA_ADMIN_PASSWORD", "")
        admin = users.objects.filter(username=username).first()
        if admin is None:
            password = wanted or secrets.token_urlsafe(12)
            users.objects.create_superuser(username, f"{username}@localhost", password)
            secret_file.parent.mkdir(parents=True, exist_ok=True)
            secret_file.write_text(password + "\n")
            secret_file.chmod(0o600)
            return username, password, "(new)"
        for candidate in filter(None, [wanted, secret_file.exists() and secret_file.read_text().strip()]):
            if admin.check_password(candidate):
                return username, candidate, ""
        return username, "(unchanged)", f"(changed since; reset with: manage.py changepassword {username})"

    def _starter(self, owner, game_id: str, path: Path):
        """The starter-kit bot of a game, a new version when the kit changed; None without a kit."""
        if not path.is_file():
            return None
        data = path.read_bytes()
        name = f"{game_id}-starter".replace("_", "-")
        bot = Bot.objects.filter(name=name).first()
        upload = SimpleUploadedFile("main.py", data)
        if bot is None:
            return bot_create(owner=owner, name=name, game=game_id, upload=upload,
                              description=f"The starter kit of {game_id} (starter_kits/{game_id}/main.py).")
        latest = bot.versions.order_by("-number").first()
        if latest is None or latest.sha256 != hashlib.sha256(data).hexdigest():
            bot_version_create(bot=bot, upload=upload)
        return bot

    def _tournament(self):
        """A 3-seat Swiss of the Deep Sea Adventure ladder's ready bots (taken when it starts, so the
        starter kit enters once its smoke test passed), starting a few minutes from now."""
        delay = envint("ARENA_DEMO_TOURNAMENT_DELAY", 180)
        ladder = Ladder.objects.filter(game="deep_sea_adventure").order_by("seat_count").first()
        if delay <= 0 or ladder is None:
            return None
        pending = Tournament.objects.filter(status__in=["scheduled", "running", "paused"], slug__startswith="demo-")
        if pending.exists():
            return pending.first()
        start = timezone.now() + timedelta(seconds=delay)
        return tournament_create(
            name=f"Demo cup {start:%Y-%m-%d %H:%M}", slug=f"demo-{start:%Y%m%d-%H%M%S}", game="deep_sea_adventure",
            seat_count=3, format=Tournament.Format.SWISS, rounds=2, entry=Tournament.Entry.LADDER, ladder=ladder,
            start_at=start)

    def _ladder(self, game, seats: int) -> Ladder:
        slug = f"{game.id}-solo" if seats == 1 else f"{game.id}-{seats}p"
        slug = slug.replace("_", "-")
        existing = Ladder.objects.filter(slug=slug).first()
        if existing:
            return existing
        name = f"{game.title}, solo" if seats == 1 else f"{game.title}, {seats} players"
        return ladder_create(slug=slug, name=name, game=game.id, seat_count=seats,
                             queue_size=1 if seats == 1 else 2)
