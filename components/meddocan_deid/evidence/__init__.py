"""Evidence a data protection officer can sign, from a run's own output.

- `binomial`: exact one-sided Clopper-Pearson bounds and the sample size a bound needs;
- `sampling`: a seeded random sample of a run's reports, stratified by document type;
- `review_order`: the sample's review order, the least certain reports first;
- `marks`: the reviewer's marks of a sample (the marks file, or a Label Studio export);
- `certify`: the share of reports and of PHI mentions left, with bounds, against the policy;
- `generalise` and `table_risk`: k-anonymity and l-diversity of a table's quasi-identifiers,
  and the least generalisation that reaches a target k;
- `text_table`: what a run's text keeps in clear (ages, sex, places, dates), as such a table;
- `statement`: the release statement (Markdown) of a run folder.

This package imports nothing at its top: `deid/policy.py` reads `targets` from it.
"""
