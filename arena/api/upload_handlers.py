"""An upload handler that never keeps more of a file than the largest upload limit.

Django would otherwise stream an uploaded file of any size to a temporary file before a
view sees it. This handler keeps the first ``MAX_ZIP_BYTES + 1`` bytes in memory and drops
the rest, so an oversized upload still reaches the upload rules (which then say "larger
than the limit") without filling the web server's disk or memory.
"""

from __future__ import annotations

import io

from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler

from arena.bots.uploads import MAX_ZIP_BYTES

CAP = MAX_ZIP_BYTES + 1


class CappedMemoryUploadHandler(FileUploadHandler):
    """Keeps at most ``CAP`` bytes of each uploaded file, in memory."""

    def new_file(self, *args, **kwargs):
        """Start a new file with an empty buffer."""
        super().new_file(*args, **kwargs)
        self.buffer = io.BytesIO()

    def receive_data_chunk(self, raw_data, start):
        """Keep the part of the chunk below the cap; drop the rest."""
        room = CAP - self.buffer.tell()
        if room > 0:
            self.buffer.write(raw_data[:room])
        return None  # consumed: no later handler stores it either

    def file_complete(self, file_size):
        """The kept bytes as an in-memory uploaded file."""
        self.buffer.seek(0)
        return InMemoryUploadedFile(
            file=self.buffer, field_name=self.field_name, name=self.file_name,
            content_type=self.content_type, size=len(self.buffer.getbuffer()), charset=self.charset,
            content_type_extra=self.content_type_extra)
