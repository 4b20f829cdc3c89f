"""Write samples/sample.warc.gz: a small crawl of made-up sites, for demos and smoke tests.

All page text below was written for this project (no third-party content). The WARC is shaped
like a Common Crawl file: a warcinfo record, then for each fetch a request, a response and a
metadata record, one gzip member per record. Besides articles in seven languages it holds a 404,
an image, a redirect and a Latin-1 page declared in the HTTP header, so every reader and cleaner
path has something to do. Output is deterministic (fixed ids and dates).

    python samples/make_sample.py [OUT]   # default: samples/sample.warc.gz
"""

from __future__ import annotations

import html
import io
import sys
import uuid
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

NAMESPACE = uuid.UUID("8f8d6f0e-7d0c-4c59-9d44-2c1f1f7f3a10")
DATE = "2024-05-0{day}T1{hour}:{minute:02d}:00Z"

# (language, site, navigation labels, footer, [(title, [paragraph, ...]), ...])
SITES: list[tuple[str, str, list[str], str, list[tuple[str, list[str]]]]] = [
    (
        "en",
        "riverside-notes.example",
        ["Home", "Town", "Food", "Walks", "Contact"],
        "© Riverside Notes. All rights reserved. Privacy policy · Terms of use",
        [
            (
                "The library that stays open late",
                [
                    "When the town council agreed to keep the library open until ten on weekdays, "
                    "few people expected the reading room to be full after dinner. Yet by the "
                    "second month the evening shift had more visitors than the morning one.",
                    "Most of them are students who share crowded flats and need a quiet table, "
                    "but there are also night-shift nurses who come in before work and a group "
                    "of retired engineers who meet on Thursdays to repair old radios.",
                    "The librarians say the extra hours cost less than they feared, because the "
                    "building was already heated and lit for the cleaning crew. The council will "
                    "review the trial in the spring and decide whether it becomes permanent.",
                ],
            ),
            (
                "How to true a bicycle wheel at home",
                [
                    "A wheel that wobbles from side to side is rarely broken; usually one or two "
                    "spokes have loosened. You can fix it with a spoke key and a little patience, "
                    "even without a proper truing stand.",
                    "Turn the bike upside down and hold a pencil close to the rim while you spin "
                    "the wheel slowly. Where the rim touches the pencil, loosen the spoke on that "
                    "side by a quarter turn and tighten the opposite one by the same amount.",
                    "Work in small steps and check the wheel after every adjustment. If the rim "
                    "is dented or a spoke has snapped, it is time to visit a workshop instead.",
                ],
            ),
            (
                "A slow loaf for busy weeks",
                [
                    "This bread needs only five minutes of work in the evening and a hot oven the "
                    "next morning. Mix flour, water, salt and a pinch of yeast until no dry flour "
                    "is left, cover the bowl and leave it on the kitchen counter overnight.",
                    "In the morning the dough will have doubled and will be full of bubbles. "
                    "Fold it gently into a ball, let it rest while the oven heats, and bake it in "
                    "a covered pot for half an hour and uncovered for another fifteen minutes.",
                ],
            ),
            (
                "Walking the old towpath",
                [
                    "The towpath along the canal was built for horses that pulled barges of coal "
                    "and grain. Today it is a flat, quiet route of about eleven kilometres that "
                    "connects three villages and passes seven locks.",
                    "Herons stand in the shallow water near the second lock, and in early summer "
                    "the banks are covered with yellow flag irises. There is a small café at the "
                    "halfway point that opens at weekends from April to October.",
                ],
            ),
        ],
    ),
    (
        "de",
        "stadtblatt-am-fluss.example",
        ["Start", "Stadt", "Kultur", "Sport", "Impressum"],
        "© Stadtblatt am Fluss · Datenschutz · Impressum · Kontakt",
        [
            (
                "Der Wochenmarkt zieht um",
                [
                    "Nach mehr als dreißig Jahren auf dem Kirchplatz zieht der Wochenmarkt im "
                    "Herbst an das Ufer des Flusses. Die Händler hatten sich lange über zu wenig "
                    "Platz und fehlende Stromanschlüsse für ihre Kühlwagen beschwert.",
                    "Auf der neuen Fläche gibt es mehr Schatten, einen Wasseranschluss und Platz "
                    "für zwölf zusätzliche Stände. Die Stadt hofft, dass dadurch auch junge "
                    "Erzeuger aus der Umgebung einen festen Stand bekommen.",
                    "Einige ältere Kunden sorgen sich allerdings um den längeren Weg. Der "
                    "Stadtrat hat deshalb beschlossen, an Markttagen einen kleinen Bus vom "
                    "Bahnhof zum Ufer fahren zu lassen, der nichts kostet.",
                ],
            ),
            (
                "Warum unser Schwimmbad im Winter geschlossen bleibt",
                [
                    "Viele Leserinnen und Leser haben gefragt, warum das Hallenbad in diesem "
                    "Winter nicht öffnet. Der Grund ist eine undichte Stelle im Dach, die erst "
                    "bei der letzten Prüfung im Sommer entdeckt wurde.",
                    "Die Reparatur soll im Februar beginnen und etwa drei Monate dauern. Bis "
                    "dahin können Schulklassen das Bad in der Nachbarstadt nutzen, wohin ein "
                    "Bus zweimal in der Woche fährt.",
                ],
            ),
            (
                "Ein Abend mit dem Jugendorchester",
                [
                    "Das Jugendorchester der Musikschule hat am Samstag vor vollem Saal gespielt. "
                    "Auf dem Programm standen Stücke, die die Jugendlichen zum Teil selbst "
                    "bearbeitet hatten, und ein Lied, das eine Schülerin komponiert hat.",
                    "Der Leiter des Orchesters sagte nach dem Konzert, er sei vor allem stolz "
                    "darauf, wie ruhig die jüngsten Mitglieder geblieben seien. Im Frühjahr soll "
                    "es eine kleine Reise zu einem Festival im Süden geben.",
                ],
            ),
            (
                "Radweg an der Landstraße wird breiter",
                [
                    "Der schmale Radweg zwischen dem Ortsteil und dem Gewerbegebiet wird im "
                    "nächsten Jahr auf drei Meter verbreitert. Bisher mussten sich Radfahrer und "
                    "Fußgänger einen Streifen von kaum einem Meter teilen.",
                    "Die Bauarbeiten sollen in den Sommerferien stattfinden, damit der Schulweg "
                    "möglichst wenig gestört wird. Eine Umleitung wird über den Feldweg am "
                    "Sportplatz ausgeschildert.",
                ],
            ),
        ],
    ),
    (
        "fr",
        "gazette-du-quartier.example",
        ["Accueil", "Quartier", "Cuisine", "Agenda", "Contact"],
        "© La Gazette du Quartier · Mentions légales · Confidentialité",
        [
            (
                "Le jardin partagé fête ses dix ans",
                [
                    "Il y a dix ans, le terrain derrière l'école n'était qu'un parking abandonné. "
                    "Aujourd'hui, une quarantaine de familles y cultivent des tomates, des "
                    "haricots et des fleurs, et le lieu est devenu le cœur du quartier.",
                    "Pour fêter l'anniversaire, l'association organise une journée portes "
                    "ouvertes avec des ateliers de compostage, un troc de graines et un repas "
                    "préparé avec les légumes du jardin.",
                    "Les responsables rappellent que la liste d'attente pour obtenir une "
                    "parcelle est longue, mais que chacun peut venir aider le samedi matin sans "
                    "inscription.",
                ],
            ),
            (
                "Une soupe de saison pour les soirs froids",
                [
                    "Quand les jours raccourcissent, rien ne vaut une soupe de potiron et de "
                    "lentilles. Faites revenir un oignon, ajoutez le potiron coupé en dés, une "
                    "poignée de lentilles corail et couvrez d'eau.",
                    "Laissez cuire une demi-heure, mixez le tout et ajoutez un peu de crème ou "
                    "de lait de coco selon vos goûts. Cette soupe se garde trois jours au "
                    "réfrigérateur et se congèle très bien.",
                ],
            ),
            (
                "La bibliothèque prête désormais des outils",
                [
                    "Perceuse, échelle, machine à coudre : depuis le mois dernier, la "
                    "bibliothèque municipale prête aussi des outils. Il suffit de présenter sa "
                    "carte de lecteur pour les emprunter pendant une semaine.",
                    "L'idée est venue d'habitants qui trouvaient absurde d'acheter un appareil "
                    "dont on ne se sert que deux fois par an. Les premiers résultats sont "
                    "encourageants et la collection devrait s'agrandir.",
                ],
            ),
            (
                "Promenade le long du canal",
                [
                    "Le chemin qui longe le canal est idéal pour une promenade du dimanche. Il "
                    "est plat, ombragé et traverse deux petits ponts en pierre construits il y a "
                    "plus d'un siècle.",
                    "En chemin, on croise des pêcheurs, des familles à vélo et parfois un "
                    "bateau qui attend devant l'écluse. Comptez environ deux heures pour "
                    "l'aller et le retour.",
                ],
            ),
        ],
    ),
    (
        "es",
        "diario-del-valle.example",
        ["Inicio", "Pueblo", "Cocina", "Rutas", "Contacto"],
        "© Diario del Valle · Aviso legal · Política de privacidad",
        [
            (
                "La fiesta del pueblo vuelve a la plaza",
                [
                    "Después de dos años celebrándose en el polideportivo, la fiesta mayor "
                    "vuelve a la plaza del ayuntamiento. Los vecinos lo habían pedido en una "
                    "consulta popular que reunió a más de mil personas.",
                    "El programa incluye un concierto de la banda municipal, un concurso de "
                    "tortillas y una verbena que terminará a las dos de la madrugada para no "
                    "molestar a quienes viven en el centro.",
                    "La comisión de fiestas busca voluntarios para montar el escenario y "
                    "organizar los juegos infantiles de la tarde del domingo.",
                ],
            ),
            (
                "Cómo cuidar un huerto en verano",
                [
                    "El calor del verano es duro para las plantas del huerto. Lo más importante "
                    "es regar temprano por la mañana o al atardecer, cuando el agua no se "
                    "evapora tan rápido y las raíces pueden aprovecharla.",
                    "Cubrir la tierra con paja ayuda a mantener la humedad y evita que crezcan "
                    "malas hierbas. También conviene recoger los tomates y los calabacines a "
                    "menudo para que la planta siga dando frutos.",
                ],
            ),
            (
                "Una ruta sencilla hasta el molino",
                [
                    "El camino que sale del puente viejo y sigue el río hasta el molino es una "
                    "de las rutas más agradables de la comarca. Son unos seis kilómetros sin "
                    "apenas desnivel, aptos para cualquier edad.",
                    "El molino fue restaurado hace poco y abre los sábados por la mañana. Un "
                    "guía explica cómo se molía el trigo y cómo el agua movía las enormes "
                    "piedras del interior.",
                ],
            ),
            (
                "El mercado de los jueves cumple cincuenta años",
                [
                    "Cada jueves, desde hace medio siglo, la calle principal se llena de puestos "
                    "de fruta, queso, pan y ropa. Algunos vendedores son ya la tercera "
                    "generación de la misma familia.",
                    "Para celebrarlo, el ayuntamiento ha preparado una exposición de fotografías "
                    "antiguas del mercado que se puede visitar durante todo el mes en la casa "
                    "de cultura.",
                ],
            ),
        ],
    ),
    (
        "it",
        "voce-della-valle.example",
        ["Home", "Paese", "Cucina", "Itinerari", "Contatti"],
        "© La Voce della Valle · Note legali · Privacy",
        [
            (
                "Riapre la vecchia stazione",
                [
                    "Dopo anni di abbandono, la vecchia stazione ferroviaria del paese riapre "
                    "come centro culturale. Nelle sale d'attesa restaurate ci sono ora una "
                    "piccola biblioteca, una sala per le prove musicali e un bar.",
                    "Il progetto è stato finanziato in parte dalla regione e in parte da una "
                    "raccolta di fondi tra gli abitanti, che hanno anche aiutato a ridipingere "
                    "le pareti durante i fine settimana.",
                ],
            ),
            (
                "Il pane del sabato",
                [
                    "Nella nostra famiglia il sabato mattina si fa il pane. La sera prima si "
                    "prepara un impasto semplice con farina, acqua, sale e lievito madre, che "
                    "riposa tutta la notte in un luogo fresco.",
                    "Al mattino si forma la pagnotta, si lascia lievitare ancora un'ora e poi si "
                    "cuoce nel forno ben caldo. Il profumo riempie la casa e i bambini aspettano "
                    "impazienti la prima fetta.",
                ],
            ),
        ],
    ),
    (
        "zh",
        "xiaozhen-ribao.example",
        ["首页", "本地", "美食", "旅行", "联系我们"],
        "© 小镇日报 版权所有 · 隐私政策 · 使用条款",
        [
            (
                "老街的早市又热闹起来了",
                [
                    "每天清晨六点，老街两旁就摆满了卖蔬菜、豆腐和早点的小摊。去年街道重新铺了石板路以后，"
                    "来逛早市的人比以前多了不少，很多年轻人也专门过来买热乎乎的包子。",
                    "摊主们说，最受欢迎的还是自家种的青菜和刚出锅的豆浆。街道办事处计划在入口处增加"
                    "几个自行车停放点，让大家逛得更方便。",
                ],
            ),
            (
                "在家做一碗简单的番茄鸡蛋面",
                [
                    "番茄鸡蛋面做法简单，十五分钟就能完成。先把鸡蛋打散炒熟盛出，再用少许油把番茄炒出汁，"
                    "加入清水煮开后放面条。",
                    "面条快熟的时候把鸡蛋倒回锅里，加一点盐和葱花就可以出锅了。如果喜欢酸一点，"
                    "可以多放一个番茄。",
                ],
            ),
            (
                "沿着河边散步的好去处",
                [
                    "小镇东边的河堤去年修好了步道，全长大约四公里，一路上有柳树和长椅。傍晚的时候，"
                    "很多人在这里散步、跑步或者带着孩子骑车。",
                    "步道的尽头有一座小小的石桥，站在桥上可以看到远处的山和落日。周末还常常有人在"
                    "桥边拉二胡，吸引了不少路人停下来听。",
                ],
            ),
        ],
    ),
    (
        "ja",
        "machi-no-tayori.example",
        ["ホーム", "まち", "たべもの", "おでかけ", "お問い合わせ"],
        "© まちのたより 無断転載を禁じます · プライバシーポリシー",
        [
            (
                "商店街に新しい本屋さんができました",
                [
                    "駅前の商店街に、小さな本屋さんが先月オープンしました。店主は長年図書館で働いていた方で、"
                    "絵本や地元の歴史に関する本を中心に並べています。",
                    "店の奥には子どもが座って本を読める畳のスペースがあり、週末には読み聞かせの会も開かれます。"
                    "近所の人たちの新しい集まりの場所になりそうです。",
                ],
            ),
            (
                "川沿いの桜並木を歩く",
                [
                    "春になると、町を流れる川の両岸に約三百本の桜が咲きそろいます。駅から歩いて十分ほどで、"
                    "平らな道が続くので、お年寄りや小さな子ども連れでも安心です。",
                    "夜には提灯がともり、水面に映る花がとてもきれいです。混雑をさけたい方には、"
                    "朝早い時間の散歩をおすすめします。",
                ],
            ),
            (
                "冬においしい具だくさんの豚汁",
                [
                    "寒い日には、野菜をたっぷり入れた豚汁がおすすめです。大根、にんじん、ごぼう、"
                    "こんにゃくを食べやすい大きさに切り、豚肉と一緒にごま油でいためます。",
                    "水を入れてやわらかくなるまで煮たら、みそをとかして完成です。"
                    "最後にねぎをのせると、香りがよくなります。",
                ],
            ),
        ],
    ),
]


def page_html(
    lang: str, site: str, nav: list[str], footer: str, title: str, paras: list[str]
) -> str:
    links = "".join(f'<li><a href="/{i}">{html.escape(n)}</a></li>' for i, n in enumerate(nav))
    # The first two paragraphs form one lead paragraph, as news sites often write a long opener.
    lead = [" ".join(paras[:2]), *paras[2:]]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in lead)
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} | {site}</title>"
        "<style>body{font-family:sans-serif}</style><script>var t=1;</script></head><body>"
        f'<header><a href="/">{site}</a><nav><ul>{links}</ul></nav></header>'
        f"<main><article><h1>{html.escape(title)}</h1>{body}</article></main>"
        f'<aside><a href="/a">{html.escape(nav[2])}</a> | <a href="/b">{html.escape(nav[3])}</a>'
        f"</aside><footer><p>{html.escape(footer)}</p></footer></body></html>"
    )


LATIN1_PAGE = (
    "<html><head><title>Café Übersicht</title></head><body><nav><a href='/'>Start</a></nav>"
    "<p>Im kleinen Café am Marktplatz gibt es jeden Morgen frische Brötchen, und die Besitzerin "
    "kennt fast alle Gäste beim Namen. Wer früh kommt, bekommt einen Platz am Fenster mit Blick "
    "auf den Brunnen, an dem sich im Sommer die Kinder abkühlen.</p>"
    "<p>Die Preise sind seit Jahren gleich geblieben, und über die Mittagszeit wird eine "
    "einfache Suppe angeboten, die sich nach dem richtet, was der Markt gerade hergibt.</p>"
    "</body></html>"
)

# a 1x1 transparent PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


class SampleWriter:
    def __init__(self, out: io.BufferedIOBase) -> None:
        self.writer = WARCWriter(out, gzip=True, warc_version="1.1")
        self.n = 0

    def _headers(self, kind: str, url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        self.n += 1
        rid = uuid.uuid5(NAMESPACE, f"{kind}:{url}:{self.n}")
        date = DATE.format(day=1 + self.n % 9, hour=self.n % 10, minute=self.n % 60)
        return {"WARC-Record-ID": f"<urn:uuid:{rid}>", "WARC-Date": date, **(extra or {})}

    def warcinfo(self) -> None:
        info = {"software": "warcclean samples/make_sample.py", "format": "WARC File Format 1.1"}
        rec = self.writer.create_warcinfo_record("sample.warc.gz", info)
        rec.rec_headers.replace_header(
            "WARC-Record-ID", self._headers("info", "-")["WARC-Record-ID"]
        )
        rec.rec_headers.replace_header("WARC-Date", "2024-05-01T00:00:00Z")
        self.writer.write_record(rec)

    def fetch(self, url: str, status: str, headers: list[tuple[str, str]], body: bytes) -> None:
        host = url.split("/")[2]
        path = "/" + "/".join(url.split("/")[3:])
        req = StatusAndHeaders(
            f"GET {path} HTTP/1.1",
            [("Host", host), ("User-Agent", "warcclean-sample/1.0")],
            is_http_request=True,
        )
        wh = self._headers("request", url)
        self.writer.write_record(
            self.writer.create_warc_record(url, "request", http_headers=req, warc_headers_dict=wh)
        )
        http = StatusAndHeaders(
            status, [*headers, ("Content-Length", str(len(body)))], protocol="HTTP/1.1"
        )
        wh = self._headers("response", url)
        response_id = wh["WARC-Record-ID"]
        self.writer.write_record(
            self.writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=http, warc_headers_dict=wh
            )
        )
        meta = f"fetchTimeMs: {37 + self.n % 50}\r\ncharset-detected: UTF-8\r\n".encode()
        wh = self._headers(
            "metadata",
            url,
            {"WARC-Concurrent-To": response_id, "Content-Type": "application/warc-fields"},
        )
        self.writer.write_record(
            self.writer.create_warc_record(
                url,
                "metadata",
                payload=io.BytesIO(meta),
                warc_headers_dict=wh,
                warc_content_type="application/warc-fields",
            )
        )


def write_sample(out: io.BufferedIOBase) -> int:
    """Write the sample crawl to ``out``; return the number of fetches (response records)."""
    w = SampleWriter(out)
    w.warcinfo()
    fetches = 0
    html_type = [("Content-Type", "text/html; charset=utf-8")]
    for lang, site, nav, footer, articles in SITES:
        for i, (title, paras) in enumerate(articles):
            page = page_html(lang, site, nav, footer, title, paras).encode()
            w.fetch(f"https://{site}/{lang}/article-{i + 1}.html", "200 OK", html_type, page)
            fetches += 1
    w.fetch(
        "https://stadtblatt-am-fluss.example/cafe.html",
        "200 OK",
        [("Content-Type", "text/html; charset=iso-8859-1")],
        LATIN1_PAGE.encode("latin-1"),
    )
    w.fetch(
        "https://riverside-notes.example/missing.html",
        "404 Not Found",
        html_type,
        b"<html><body><h1>Not found</h1><p>Nothing here.</p></body></html>",
    )
    w.fetch(
        "https://riverside-notes.example/logo.png", "200 OK", [("Content-Type", "image/png")], PNG
    )
    w.fetch(
        "https://riverside-notes.example/old-page",
        "301 Moved Permanently",
        [
            ("Location", "https://riverside-notes.example/en/article-1.html"),
            ("Content-Type", "text/html"),
        ],
        b"",
    )
    w.fetch(
        "https://riverside-notes.example/empty.html",
        "200 OK",
        html_type,
        b"<html><head><title></title></head><body><nav><a href='/'>Home</a></nav></body></html>",
    )
    return fetches + 5


def main(argv: list[str]) -> None:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("sample.warc.gz")
    with out.open("wb") as f:
        n = write_sample(f)
    print(f"wrote {out}: {n} fetches, {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv)
