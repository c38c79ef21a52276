"""Paper objects (as PaperView.to_json makes them) with awkward text, for export tests."""

from __future__ import annotations

import datetime as dt

from digest_tui.paper_view import paper_view
from tests.support.state import make_paper, replica

TRICKY_TITLE = "50% of {GPU} & $cost #1 for_x ~ ^ \\ in Mélange\x1b[31m"


def exported_papers() -> list[dict]:
    papers = [
        make_paper(
            "FlashAttention-3: Fast and Accurate Attention with Asynchrony",
            "2407.08608",
            published=dt.date(2024, 7, 11),
            authors=["Jay Shah", "Tri Dao"],
            abstract="Attention is the bottleneck; we use 75% of H100 FLOPs.",
        ),
        make_paper(
            "FlashAttention on AMD MI300X",
            published=dt.date(2024, 12, 1),
            organization_name="AMD & Friends",
            project_page="https://example.org/fa (amd)",
        ),
        make_paper("FlashAttention for Everyone", published=dt.date(2024, 2, 2)),
        make_paper(TRICKY_TITLE, published=dt.date(2025, 1, 5), authors=["Zoë Ångström"]),
        make_paper("The Untitled Paper Without a Date"),
    ]
    r = replica(papers)
    r.state.add_tags(papers[0].id, ["kernels", "to-read"])
    r.state.set_note(papers[0].id, "Uses TMA & warp specialisation; 1.5-2x over FA2.\nSee §3.")
    r.state.set_note(papers[3].id, "50% {weird} note_with\\specials")
    rows = [r.library.resolve(p.id) for p in papers]
    return [paper_view(r.library, row).to_json() for row in rows]
